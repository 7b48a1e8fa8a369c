-- A payments table of the platform's shape, for bench/pgbench/payment.sql (docs/operations.md,
-- "How far one database carries it"): pgbench drives the statements of a DB payment against it.
CREATE TABLE p (id bigserial PRIMARY KEY, mtid text UNIQUE, amount numeric(12, 2), state text, body jsonb);
