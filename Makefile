# Pulse: developer entry points. Everything installs what it needs on first use:
# a JDK >= 21 is found (JAVA_HOME or /usr/lib/jvm), the SAM CLI and moto go into .venv from PyPI,
# Maven fetches the rest.
SHELL := /bin/bash
.ONESHELL:
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

PYTHON      ?= python3
VENV        := .venv
REGION      ?= us-east-1
MVN_FLAGS   ?= -B -ntp

# The first JDK >= 21: JAVA_HOME if it qualifies, else the newest under /usr/lib/jvm.
JAVA_HOME_21 := $(shell scripts/find-jdk.sh 2>/dev/null)
ifeq ($(JAVA_HOME_21),)
  $(error no JDK >= 21 found: set JAVA_HOME to one (the java21 Lambda runtime needs release 21 class files))
endif
export JAVA_HOME := $(JAVA_HOME_21)
export PATH := $(JAVA_HOME)/bin:$(CURDIR)/$(VENV)/bin:$(PATH)
export SAM_CLI_TELEMETRY := 0
export AWS_DEFAULT_REGION ?= $(REGION)

SAM := $(VENV)/bin/sam

.PHONY: help test verify lint build deploy events clean

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

# SAM CLI and moto (the SQS endpoint of the integration tests), pinned in requirements-dev.txt.
$(VENV)/.installed: requirements-dev.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements-dev.txt
	touch $@

# The Kinesis emulator (kinesalite, pinned in tools/kinesis/package-lock.json) for tests and local runs.
KINESIS := tools/kinesis
$(KINESIS)/node_modules/.installed: $(KINESIS)/package-lock.json
	npm ci --prefix $(KINESIS) --no-audit --no-fund --loglevel=error
	touch $@

test: $(VENV)/.installed $(KINESIS)/node_modules/.installed ## Unit and integration tests, sam validate --lint, sam build (what CI runs)
	echo "JDK: $$JAVA_HOME"
	mvn $(MVN_FLAGS) verify -Dpulse.moto.bin=$(CURDIR)/$(VENV)/bin/moto_server -Dpulse.kinesis.dir=$(CURDIR)/$(KINESIS)
	$(SAM) validate --lint --region $(AWS_DEFAULT_REGION)
	$(VENV)/bin/python scripts/translate_template.py template.yaml
	$(SAM) build
	echo "make test: all checks passed"

lint: $(VENV)/.installed ## sam validate --lint and an offline SAM transform of the template
	$(SAM) validate --lint --region $(AWS_DEFAULT_REGION)
	$(VENV)/bin/python scripts/translate_template.py template.yaml

build: $(VENV)/.installed ## Compile and package with Maven, then sam build (no tests)
	mvn $(MVN_FLAGS) -q package -DskipTests
	$(SAM) build

deploy: build ## sam build, then sam deploy --guided (needs AWS credentials)
	$(SAM) deploy --guided

events: ## Regenerate events/*.json (NOW=now for timestamps that pass the ingest window today)
	$(PYTHON) scripts/gen_events.py --now "$${NOW:-2026-11-21T12:00:00Z}"

clean: ## Remove build output (keeps .venv)
	mvn $(MVN_FLAGS) -q clean
	rm -rf .aws-sam
