# One virtual environment per clone, made from the project's own files: pyproject.toml for
# what is needed, requirements/*.txt for the exact versions (pip constraints, `make lock`).
# `make run` installs the runtime alone; `make test` adds the test tools. Each set has its own
# stamp, so the two targets share the one .venv and neither reinstalls the other's set.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.installed-run
TEST_STAMP := $(VENV)/.installed-test
PIP := $(BIN)/python -m pip --quiet --disable-pip-version-check
EDITABLE := -e
# The engine contract check: random games per registered game (and of the 1212 advanced variant),
# seeds 1..CHECK_GAMES. 30: every past contract fault the check can see was found by game 8 at
# the latest (views sharing a list with the state: game 1 of every game; log lines in the
# state's key order: game 6 of Dirk Henn's Granada, game 8 of Sabika, README "Tests"), and a
# new fault that shows in one game of ten is found with a probability of 96% (1 - 0.9^30);
# 100 games cost 12 CPU-minutes, a third of CI's budget.
CHECK_GAMES ?= 30
# Test processes (pytest-xdist): one per core; `make check JOBS=0` runs the tests in this process.
JOBS ?= auto
# pytest with byte-code caching on, whatever the shell says (PYTHONDONTWRITEBYTECODE): pytest
# then keeps each test module with its asserts rewritten in __pycache__, instead of rewriting
# every test module at every start (half of a start's time). Work stealing: an idle worker
# takes tests from a busy one, so a long test at the end does not leave a core idle.
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n $(JOBS) --dist worksteal

.PHONY: run test check fast-tests install lint typecheck pytest contract contract-shared smoke clean bench bench-quick golden lock

$(BIN)/python:
	@$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PY=python3.11)")'
	$(PY) -m venv $(VENV)
	$(PIP) install --upgrade 'pip>=24'

$(RUN_STAMP): pyproject.toml requirements/runtime.txt | $(BIN)/python
	$(PIP) install -c requirements/runtime.txt $(EDITABLE) .
	touch $@

$(TEST_STAMP): pyproject.toml requirements/test.txt | $(BIN)/python
	$(PIP) install -c requirements/test.txt $(EDITABLE) '.[test,postgres]'
	touch $@

install: $(RUN_STAMP)

## run: set everything up and start the bot (terminal table when DISCORD_TOKEN is unset)
run: $(RUN_STAMP)
	$(BIN)/alcazaba run

## test: set everything up and run the whole test suite (lint, types, tests, contract, smoke)
# The contract check (minutes of one core) runs beside the rest at the lowest priority, in
# the cycles the suite leaves idle (its Discord and browser tests mostly wait); its output
# follows the rest, and any stage that fails fails the whole (-k: every stage still runs).
test: $(TEST_STAMP)
	@log=$$(mktemp); \
	( nice -n 19 $(MAKE) --no-print-directory contract >$$log 2>&1; echo $$? >$$log.rc ) & \
	rc=0; $(MAKE) --no-print-directory -k lint typecheck pytest smoke || rc=$$?; \
	wait; cat $$log; crc=$$(cat $$log.rc); rm -f $$log $$log.rc; \
	if [ $$crc -ne 0 ]; then echo "make test: the contract check failed" >&2; fi; \
	[ $$rc -eq 0 ] && [ $$crc -eq 0 ]

## check: lint, types and the fast tests (neither slow nor PostgreSQL) on every core, in under a minute
# The three at once (each one's output kept together): mypy uses one core, and the tests
# fill what it leaves, instead of waiting for it.
check: $(TEST_STAMP)
	@$(MAKE) --no-print-directory -j 3 -O lint typecheck fast-tests

fast-tests: $(TEST_STAMP)
	$(PYTEST) -q -m "not slow and not postgres"

lint: $(TEST_STAMP)
	$(BIN)/ruff check engine bot render migrations tests benchmarks requirements

typecheck: $(TEST_STAMP)
	$(BIN)/mypy engine
	$(BIN)/mypy bot render migrations benchmarks

pytest: $(TEST_STAMP)
	$(PYTEST) -q

## contract: the project's own engine contract check (alcazaba check) on every registered game
contract: $(TEST_STAMP)
	$(BIN)/alcazaba check --games $(CHECK_GAMES) --seed 1
	$(BIN)/alcazaba check navas --option advanced=true --games $(CHECK_GAMES) --seed 1

## contract-shared: a second opinion, ../shared/tools/contract_check.py, where it is beside the clone
contract-shared: $(TEST_STAMP)
	@if [ ! -f ../shared/tools/contract_check.py ]; then \
		echo "contract-shared: ../shared/tools/contract_check.py is not beside this clone; nothing to do"; exit 0; fi; \
	log=$$(mktemp); \
	$(BIN)/python ../shared/tools/contract_check.py --games $(CHECK_GAMES) --seed 1 > $$log 2>&1; rc=$$?; \
	if [ $$rc -ne 0 ]; then grep -E '^(FAIL|summary)' $$log | head -n 40; tail -n 20 $$log; else grep -E '^(summary|PASS)' $$log; fi; rm -f $$log; exit $$rc

## smoke: one whole game of Las Navas played by the built-in player through the real command line
smoke: $(TEST_STAMP)
	@dir=$$(mktemp -d); \
	DATA_DIR=$$dir $(BIN)/alcazaba local navas --autoplay --seed 1 --db $$dir/smoke.db > $$dir/smoke.log 2>&1; rc=$$?; \
	tail -n 1 $$dir/smoke.log; \
	if [ $$rc -eq 0 ] && ! tail -n 1 $$dir/smoke.log | grep -Eq '^game [0-9]+ finished: \{'; then \
		echo "smoke: the last line is not 'game <id> finished: <result>'"; rc=1; fi; \
	if [ $$rc -ne 0 ]; then tail -n 30 $$dir/smoke.log; fi; \
	rm -rf $$dir; exit $$rc

bench: $(RUN_STAMP)
	$(BIN)/alcazaba bench

bench-quick: $(RUN_STAMP)
	$(BIN)/alcazaba bench --quick

golden: $(TEST_STAMP)
	$(BIN)/python -m tests.render.regenerate

## lock: pin the versions installed in .venv (after changing a dependency), then run make test
lock: $(TEST_STAMP)
	$(BIN)/python requirements/lock.py

clean:
	rm -rf $(VENV) build *.egg-info
