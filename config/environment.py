"""The environment every settings module reads (django-environ): the project's folder, `env`
with the git-ignored .env file loaded under the process's own variables, DEBUG, and the Redis
URL the broker and the cache share (config.settings and the modules it imports).
"""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=True)
REDIS_URL = env.str("REDIS_URL", default="")
