# The two commands: `make run` starts the whole assistant, `make test` runs the tests.
# Both install what they need first (scripts/setup.sh is idempotent).
PY := .venv/bin/python

.PHONY: setup run test test-slow bench

setup:
	./scripts/setup.sh

run: setup
	.venv/bin/mcp-chat up

test: setup
	OMP_WAIT_POLICY=PASSIVE $(PY) -m pytest -ra $(PYTEST_ARGS)

test-slow: setup
	OMP_WAIT_POLICY=PASSIVE $(PY) -m pytest -ra -m slow $(PYTEST_ARGS)
