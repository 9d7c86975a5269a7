# Croupier: the commands developers and CI use. Everything runs inside .venv,
# created by uv from uv.lock (uv itself comes from PyPI if the machine lacks it).
SHELL := /bin/bash
PY := .venv/bin/python
UV := $(shell command -v uv 2>/dev/null || echo .venv-uv/bin/uv)

.PHONY: venv protos web run test test-unit lint docs bench e2e load infra-up infra-down clean

$(UV):
	python3 -m venv .venv-uv && .venv-uv/bin/pip install -q uv

.venv/.synced: pyproject.toml uv.lock | $(UV)
	$(UV) sync --frozen --all-extras --python python3.11
	touch $@

venv: .venv/.synced

gen/python/.generated: venv $(shell find protos -name '*.proto') $(wildcard services/*/croupier/*/__init__.py)
	$(PY) scripts/gen_protos.py
	touch $@

protos: gen/python/.generated

## The gateway's web page: npm ci from package-lock.json, then TypeScript from the protos and
## the bundle in services/gateway/web/dist (served by the gateway at /; never committed).
WEB := services/gateway/web
$(WEB)/node_modules/.installed: $(WEB)/package.json $(WEB)/package-lock.json
	cd $(WEB) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(WEB)/dist/index.html: $(WEB)/node_modules/.installed $(WEB)/build.mjs $(WEB)/buf.gen.yaml $(shell find $(WEB)/src -not -path '*/gen/*' -type f) $(shell find protos -name '*.proto')
	cd $(WEB) && npm run --silent build

web: $(WEB)/dist/index.html

## The embedded platform: every implemented service in one process, in-memory bus, embedded PostgreSQL.
run: protos web
	.venv/bin/croupier run

## The whole suite, against a real Kafka broker and a real PostgreSQL (started here if absent).
test: protos web
	$(PY) scripts/lint_protos.py
	deploy/local/gnubg.sh ensure
	deploy/local/tools.sh ensure
	deploy/local/chromium.sh ensure
	deploy/local/with-infra.sh .venv/bin/pytest $(PYTEST_ARGS)

## Pure-logic tests only: no broker, no database.
test-unit: protos
	.venv/bin/pytest -m "not integration" $(PYTEST_ARGS)

lint: protos
	.venv/bin/ruff check services tests scripts benchmarks
	.venv/bin/ruff format --check services tests scripts benchmarks
	.venv/bin/mypy -p croupier.game -p croupier.kit -p croupier.cli -p croupier.table -p croupier.wallet -p croupier.poker -p croupier.backgammon -p croupier.rummy -p croupier.joker -p croupier.tournament -p croupier.gateway -p croupier.lobby -p croupier.bots

## The API reference in docs/api, from the protos' comments and the services' refusals.
docs: protos
	$(PY) scripts/gen_api_docs.py

bench: protos
	deploy/local/gnubg.sh ensure
	deploy/local/with-infra.sh $(PY) -m benchmarks

## End to end under faults (issue #23, docs/e2e.md): every service as its own process, bots
## through the gateway, seeded SIGKILLs; report in .local/e2e/<run>/. SEED=n RUNS=k replay.
e2e: protos
	deploy/local/with-infra.sh $(PY) -m tests.e2e $(if $(SEED),--seed $(SEED)) --runs $(or $(RUNS),1)

## Load (issue #23): bot tables through the gateway per game, doubled until Act's p99 passes 50 ms.
load: protos
	deploy/local/with-infra.sh $(PY) -m tests.e2e.load

infra-up: protos  # the topic set-up imports the generated envelope code
	deploy/local/kafka.sh start
	deploy/local/postgres.sh start

infra-down:
	-deploy/local/kafka.sh stop
	-deploy/local/postgres.sh stop

clean:
	rm -rf gen .venv .pytest_cache .mypy_cache .ruff_cache
