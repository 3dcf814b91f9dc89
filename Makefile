# The two commands: `make run` starts the whole assistant, `make test` runs the tests.
# Both install what they need first (scripts/setup.sh is idempotent).
PY := .venv/bin/python
# Two pytest-xdist workers, each taking whole files (a module's fixtures start once), in the order pytest collects
# them: xdist's default reorder (most tests first) leaves the few long tests (wheels, launcher) for the end on one
# worker. PYTEST_WORKERS=0 runs serially.
PYTEST_WORKERS ?= 2
PARALLEL := -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder

.PHONY: setup run test test-avx2 test-slow bench

setup:
	./scripts/setup.sh

run: setup
	.venv/bin/mcp-chat up

test: setup
	OMP_WAIT_POLICY=PASSIVE $(PY) -m pytest -ra --durations=15 $(PARALLEL) $(PYTEST_ARGS)

# The path of a CPU with AVX2 and no AVX-512, on any x86 machine (llm_backend/layers/cpu_features.py).
test-avx2: setup
	LLM_BACKEND_ISA=avx2 OMP_WAIT_POLICY=PASSIVE $(PY) -m pytest -ra $(PARALLEL) $(PYTEST_ARGS)

test-slow: setup
	OMP_WAIT_POLICY=PASSIVE $(PY) -m pytest -ra -m slow $(PYTEST_ARGS)
