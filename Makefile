# One virtual environment per clone, made from the project's own files.
PY ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test install lint typecheck contract smoke clean bench golden

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,postgres]'
	touch $(STAMP)

install: $(STAMP)

## run: set everything up and start the bot (terminal table when DISCORD_TOKEN is unset)
run: $(STAMP)
	$(BIN)/alcazaba run

## test: set everything up and run the whole test suite (lint, types, tests, contract, smoke)
test: $(STAMP) lint typecheck
	$(BIN)/python -m pytest -q
	$(MAKE) contract smoke

lint: $(STAMP)
	$(BIN)/ruff check engine bot render migrations tests

typecheck: $(STAMP)
	$(BIN)/mypy engine

contract: $(STAMP)
	$(BIN)/python ../shared/tools/contract_check.py --games 100 --seed 1 > /tmp/alcazaba-contract.log 2>&1 || (tail -n 40 /tmp/alcazaba-contract.log; exit 1)
	tail -n 3 /tmp/alcazaba-contract.log

smoke: $(STAMP)
	rm -f /tmp/alcazaba-smoke.db
	$(BIN)/alcazaba local navas --autoplay --seed 1 --db /tmp/alcazaba-smoke.db | tail -n 1

bench: $(STAMP)
	$(BIN)/alcazaba bench

golden: $(STAMP)
	$(BIN)/python -m tests.render.regenerate

clean:
	rm -rf $(VENV) build *.egg-info
