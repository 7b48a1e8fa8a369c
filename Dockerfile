# Production image. One image runs every process: gunicorn (the default CMD), the Celery worker
# and Celery beat (docker-compose.yml and Procfile give their commands). docs/operations.md has
# the environment variables; DATABASE_URL, REDIS_URL, DJANGO_SECRET_KEY, DJANGO_ALLOWED_HOSTS,
# VAULT_KEYS and VAULT_ACTIVE_KEY_ID must be set at run time, never baked in here.
#
#   docker build \
#     --build-arg BUILD_COMMIT="$(git rev-parse HEAD)" \
#     --build-arg BUILD_TIME="$(date -u '+%Y-%m-%d %H:%M:%S +0000')" \
#     -t cardplatform .
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONPATH=/app

WORKDIR /app

RUN groupadd --system --gid 10001 app \
    && useradd --system --uid 10001 --gid app --create-home --home-dir /home/app \
       --shell /usr/sbin/nologin app

# Dependencies first, in their own layer: it is rebuilt only when pyproject.toml changes, not on
# every code change. They are read from pyproject.toml, so there is no second list to keep in step.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt \
    && rm /tmp/requirements.txt

# Then the project itself. The processes run from /app (PYTHONPATH above puts it first, so
# BASE_DIR, templates and static files resolve there, not in site-packages).
COPY . .
RUN pip install . \
    && rm -rf build ./*.egg-info

# Fail the build, not the first task, when a production-only import is missing: Celery's Redis
# transport needs `packaging`, which only the celery[redis] extra brings in.
RUN python -c "import kombu.transport.redis, psycopg, psycopg_pool, redis"

# Static files for WhiteNoise, with the production storage (compressed).
RUN DJANGO_DEBUG=false python manage.py collectstatic --noinput

# buildNumber in every API response is "<BUILD_COMMIT>@<BUILD_TIME>" (core/build.py). There is no
# git in the image, so without these build arguments it reads "unknown@unknown".
ARG BUILD_COMMIT=""
ARG BUILD_TIME=""
ENV BUILD_COMMIT=${BUILD_COMMIT} \
    BUILD_TIME=${BUILD_TIME}

# The code and collected static files stay owned by root: the app user can read, not change them.
USER app

EXPOSE 8000

# /healthz answers 503 when the database is down (urlopen raises, so the check fails). The Host
# header is the first concrete entry of DJANGO_ALLOWED_HOSTS, or Django would answer 400.
# Worker and beat containers have no web server: docker-compose.yml disables the check for them.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD python -c "import os, sys, urllib.request as u; hosts = [h.strip().lstrip('.') for h in os.environ.get('DJANGO_ALLOWED_HOSTS', '').split(',') if h.strip() not in ('', '*')] or ['localhost']; port = os.environ.get('GUNICORN_BIND', '0.0.0.0:8000').rsplit(':', 1)[-1]; r = u.urlopen(u.Request('http://127.0.0.1:' + port + '/healthz', headers={'Host': hosts[0]}), timeout=4); sys.exit(0 if r.status == 200 else 1)"

CMD ["gunicorn", "-c", "config/gunicorn.conf.py", "config.wsgi"]
