# One virtual environment per clone, made from the project's own files.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install lint typecheck pytest contract smoke clean bench bench-quick golden

$(STAMP): pyproject.toml
	$(PY) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed (set PY=python3.11)")'
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,postgres]'
	touch $(STAMP)

install: $(STAMP)

## run: set everything up and start the bot (terminal table when DISCORD_TOKEN is unset)
run: $(STAMP)
	$(BIN)/alcazaba run

## test: set everything up and run the whole test suite (lint, types, tests, contract, smoke)
test: $(STAMP) lint typecheck pytest contract smoke

lint: $(STAMP)
	$(BIN)/ruff check engine bot render migrations tests

typecheck: $(STAMP)
	$(BIN)/mypy engine
	$(BIN)/mypy bot render migrations

pytest: $(STAMP)
	$(BIN)/python -m pytest -q

contract: $(STAMP)
	@log=$$(mktemp); \
	$(BIN)/python ../shared/tools/contract_check.py --games 100 --seed 1 > $$log 2>&1; rc=$$?; \
	if [ $$rc -ne 0 ]; then grep -E '^(FAIL|summary)' $$log | head -n 40; tail -n 20 $$log; else grep -E '^(summary|PASS)' $$log; fi; rm -f $$log; exit $$rc

## smoke: one whole game of Las Navas played by the built-in player through the real command line
smoke: $(STAMP)
	@dir=$$(mktemp -d); \
	DATA_DIR=$$dir $(BIN)/alcazaba local navas --autoplay --seed 1 --db $$dir/smoke.db > $$dir/smoke.log 2>&1; rc=$$?; \
	tail -n 1 $$dir/smoke.log; \
	if [ $$rc -eq 0 ] && ! tail -n 1 $$dir/smoke.log | grep -Eq '^game [0-9]+ finished: \{'; then \
		echo "smoke: the last line is not 'game <id> finished: <result>'"; rc=1; fi; \
	if [ $$rc -ne 0 ]; then tail -n 30 $$dir/smoke.log; fi; \
	rm -rf $$dir; exit $$rc

bench: $(STAMP)
	$(BIN)/alcazaba bench

bench-quick: $(STAMP)
	$(BIN)/alcazaba bench --quick

golden: $(STAMP)
	$(BIN)/python -m tests.render.regenerate

clean:
	rm -rf $(VENV) build *.egg-info
