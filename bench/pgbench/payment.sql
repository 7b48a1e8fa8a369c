-- The statements of one DB payment, in order (the SELECTs by primary key stand for the token's
-- entity and the merchant): gunicorn's connection health check, the token's entity, the
-- merchant, the claim (INSERT in its own transaction), the on-us look-up (no card: not on-us),
-- the finalize (the locked read and the answer's UPDATE in a second transaction).
\set n random(1, 1000000000)
SELECT 1;
SELECT id FROM p WHERE id = 1;
SELECT id FROM p WHERE id = 2;
BEGIN;
INSERT INTO p (mtid, amount, state, body) VALUES (md5(:n::text || random()::text), 10.00, 'IN_FLIGHT', '{}') RETURNING id \gset
COMMIT;
SELECT 1 FROM p WHERE mtid = 'none' LIMIT 1;
BEGIN;
SELECT state FROM p WHERE id = :id FOR UPDATE;
UPDATE p SET state = 'DONE', body = '{"result": {"code": "000.000.000"}}' WHERE id = :id;
COMMIT;
