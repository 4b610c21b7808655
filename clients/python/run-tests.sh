#!/usr/bin/env bash
# The Python package's tests (clients/python/tests), run by `npm test` after the node tests, against
# real `proving serve` processes. Python: $PYTHON, else .venv-ci/bin/python (bash .ci/run makes that
# venv: pip install './clients/python[gymnasium]' pytest). Without it: CI=true fails, locally skips.
set -euo pipefail
cd "$(dirname "$0")/../.."
PY="${PYTHON:-.venv-ci/bin/python}"
if ! "$PY" -c "import proving_ground, gymnasium, pytest" >/dev/null 2>&1; then
  if [ "${CI:-}" = "true" ]; then
    echo "python tests: $PY cannot import proving_ground, gymnasium and pytest (CI=true: failing; .ci/run makes .venv-ci)" >&2
    exit 1
  fi
  echo "notice: python tests skipped: $PY cannot import proving_ground[gymnasium] and pytest" \
    "(python3 -m venv .venv-ci && .venv-ci/bin/pip install './clients/python[gymnasium]' pytest, or set PYTHON)" >&2
  exit 0
fi
exec "$PY" -m pytest -q -p no:cacheprovider clients/python/tests
