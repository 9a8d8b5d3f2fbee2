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
CHECKOV_VENV := $(VENV)/checkov

# Security and serverless best-practice scans of template.yaml (make test and make lint); each prints its summary
# line. A finding is fixed in the template or suppressed there on its resource with the reason: checkov in
# Metadata.checkov.skip (id + comment), cfn-lint in Metadata.cfn-lint.config.ignore_checks (with a YAML comment).
SCAN_CFN_LINT := $(VENV)/bin/cfn-lint --format pretty --append-rules cfn_lint_serverless.rules -- template.yaml
# checkov leaves out resources whose Condition is false by default: the log subscription and the metric stream (off by
# default) are scanned in a copy of the template with SubscribeAccountLogs=true and the documented namespaces. One checkov run scans both files (its start-up is most of
# its time: 15 s for both against 32 s for two runs on 2 busy cores).
SCAN_CHECKOV := mkdir -p .local && $(PYTHON) scripts/template_with_defaults.py template.yaml \
  .local/template-subscribed.yaml SubscribeAccountLogs=true \
  MetricStreamNamespaces=AWS/Lambda,AWS/DynamoDB,AWS/Kinesis,AWS/SQS && $(CHECKOV_VENV)/bin/checkov \
  --file template.yaml --file .local/template-subscribed.yaml --framework cloudformation --compact --quiet --skip-download
# Every check of the template and the docs (make lint; make test runs them beside its Maven build).
TEMPLATE_CHECKS := $(SAM) validate --lint --region $(AWS_DEFAULT_REGION) \
  && $(VENV)/bin/python scripts/translate_template.py template.yaml \
  && $(SCAN_CFN_LINT) \
  && $(SCAN_CHECKOV) \
  && $(VENV)/bin/python scripts/check_docs.py .

.PHONY: help test test-one verify lint build deploy events clean run invoke local-stack bench fuzz fmt sam-local

help: ## List the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-8s %s\n", $$1, $$2}'

# SAM CLI, moto (the SQS endpoint of the integration tests) and the cfn-lint serverless rules, pinned in
# requirements-dev.txt. checkov pins a boto3 the SAM CLI cannot share, so it gets its own venv inside .venv,
# pinned in scripts/requirements-checkov.txt.
$(VENV)/.installed: requirements-dev.txt scripts/requirements-checkov.txt
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install -q --disable-pip-version-check -r requirements-dev.txt
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install -q --disable-pip-version-check -r scripts/requirements-checkov.txt
	touch $@

# The Kinesis emulator (kinesalite, pinned in tools/kinesis/package-lock.json) for tests and local runs.
KINESIS := tools/kinesis
$(KINESIS)/node_modules/.installed: $(KINESIS)/package-lock.json
	npm ci --prefix $(KINESIS) --no-audit --no-fund --loglevel=error
	touch $@

# LocalStack in host mode (no Docker) for the localstack backend (make run BACKEND=localstack) and its IT: Python 3.13,
# localstack-core pinned by tools/localstack/constraints.txt, kinesis-mock by tools/localstack/package-lock.json; installed
# into the ignored tools/localstack/.venv and node_modules only when that backend is used, or by make test.
LOCALSTACK := tools/localstack
$(LOCALSTACK)/.venv/.installed: $(LOCALSTACK)/constraints.txt $(LOCALSTACK)/package-lock.json scripts/install-localstack.sh
	scripts/install-localstack.sh $(LOCALSTACK)

# Headless Chromium for the HTML report tests: the machine's /usr/bin/chromium, or Debian's package and the libraries
# this machine lacks unpacked into tools/chromium (apt-get download + dpkg-deb, no root; about 500 MB, 30 s).
CHROMIUM := tools/chromium
$(CHROMIUM)/.installed: scripts/install-chromium.sh
	scripts/install-chromium.sh $(CHROMIUM)
	touch $@

# promtool, a real Prometheus API client for the tests (PrometheusClientsIT), and the Prometheus server whose engine
# PromQlDifferentialIT compares answers with: the Debian package `prometheus` (2.42 in bookworm) downloaded and unpacked
# into tools/prometheus/ (ignored), no root and no system install.
PROMTOOL := tools/prometheus/usr/bin/promtool
PROMETHEUS := tools/prometheus/usr/bin/prometheus
$(PROMTOOL):
	rm -rf tools/prometheus && mkdir -p tools/prometheus/deb
	(cd tools/prometheus/deb && apt-get download prometheus)
	dpkg-deb -x tools/prometheus/deb/prometheus_*.deb tools/prometheus
	rm -rf tools/prometheus/deb
	$(PROMTOOL) --version
	$(PROMETHEUS) --version

# A real Alertmanager for AlertmanagerIT (the evaluator's /api/v2/alerts sender, grouping, resolving, and its webhook
# message compared with Pulse's): the Debian package `prometheus-alertmanager` (0.25 in bookworm) downloaded and
# unpacked into tools/alertmanager/ (ignored), no root and no system install.
ALERTMANAGER := tools/alertmanager/usr/bin/prometheus-alertmanager
$(ALERTMANAGER):
	rm -rf tools/alertmanager && mkdir -p tools/alertmanager/deb
	(cd tools/alertmanager/deb && apt-get download prometheus-alertmanager)
	dpkg-deb -x tools/alertmanager/deb/prometheus-alertmanager_*.deb tools/alertmanager
	rm -rf tools/alertmanager/deb
	$(ALERTMANAGER) --version

# Where the tests find the emulators and reference tools the targets above install.
TEST_TOOLS = -Dpulse.moto.bin=$(CURDIR)/$(VENV)/bin/moto_server -Dpulse.kinesis.dir=$(CURDIR)/$(KINESIS) \
  -Dpulse.localstack.home=$(CURDIR)/$(LOCALSTACK) -Dpulse.chromium.bin=$(CURDIR)/$(CHROMIUM)/chromium \
  -Dpulse.promtool=$(CURDIR)/$(PROMTOOL) -Dpulse.prometheus=$(CURDIR)/$(PROMETHEUS) \
  -Dpulse.alertmanager=$(CURDIR)/$(ALERTMANAGER)

# Test JVMs the integration tests run in (tests/pom.xml): IT_FORKS=1 runs them one class at a time.
IT_FORKS ?= 2
# What make test installs on first use. They share nothing but the package caches (pip's, npm's and apt's downloads
# into directories of their own), so they install side by side: about 4 minutes one after the other on a clean clone.
TEST_TOOLS_INSTALLED = $(VENV)/.installed $(KINESIS)/node_modules/.installed $(LOCALSTACK)/.venv/.installed \
  $(CHROMIUM)/.installed $(PROMTOOL) $(ALERTMANAGER)
# The reactor's modules build two at a time after layers/common (each function module compiles and unit-tests
# alone): MVN_THREADS=1 for one at a time.
MVN_THREADS ?= 2
test: ## Unit and integration tests, template checks and scans, make sam-local, sam build (what CI runs)
	$(MAKE) --no-print-directory -j6 $(TEST_TOOLS_INSTALLED)
	echo "JDK: $$JAVA_HOME"
	# Formatting first, in a second: the Python files here, the Java files and their license headers in Maven's
	# validate phase (Spotless); either fails the run before any test, and `make fmt` fixes both.
	$(RUFF_CHECK) || { echo "make test: Python files need formatting: run make fmt" >&2; exit 1; }
	# make sam-local (below) starts a Docker daemon of its own: say so now, not after the Maven build.
	[ "$$(id -u)" = 0 ] || { echo "make test: needs root for its make sam-local step (a Docker daemon of its own in a network namespace)" >&2; exit 1; }
	# The template checks read only template.yaml and docs/: they run beside the Maven build (whose integration
	# tests mostly wait on emulators and simulated settle times) and print their output after it. About 40 s saved.
	mkdir -p .local
	( $(TEMPLATE_CHECKS) ) > .local/template-checks.log 2>&1 &
	checks=$$!
	# make sam-local's downloads (Debian's docker.io, the stand-in image's root file system) beside it too.
	( scripts/sam-local/run.sh --prepare ) > .local/sam-local-prepare.log 2>&1 &
	prepare=$$!
	trap 'pkill -P $$checks 2>/dev/null; pkill -P $$prepare 2>/dev/null; kill $$checks $$prepare 2>/dev/null || true' EXIT
	mvn $(MVN_FLAGS) -T $(MVN_THREADS) verify $(TEST_TOOLS) -Dpulse.it.forks=$(IT_FORKS)
	checks_status=0
	wait $$checks || checks_status=$$?
	prepare_status=0
	wait $$prepare || prepare_status=$$?
	trap - EXIT
	echo "--- template checks and scans (.local/template-checks.log) ---"
	cat .local/template-checks.log
	if [ $$checks_status -ne 0 ]; then echo "make test: the template checks failed (exit $$checks_status)" >&2; exit 1; fi
	if [ $$prepare_status -ne 0 ]; then
	  cat .local/sam-local-prepare.log >&2
	  echo "make test: make sam-local's preparation (docker.io, the stand-in image's root file system) failed" >&2; exit 1
	fi
	# make sam-local after the Maven build (whose jars sam build copies; it needs root): every event file through sam
	# local invoke and the API events through sam local start-api, in Docker, checked against events/expected/.
	echo "--- make sam-local ---"
	scripts/sam-local/run.sh || { echo "make test: make sam-local failed: its log above, each invoke's output in .local/sam-local/" >&2; exit 1; }
	$(SAM) build
	echo "make test: all checks passed"

# Formatting (ruff.toml, the root pom's Spotless block): Java through palantir-java-format with the Apache-2.0 header,
# Python (scripts/, tests' helpers, fuzz/seeds.py) through ruff format, pinned in requirements-dev.txt.
RUFF_CHECK = $(VENV)/bin/ruff format --check .
fmt: $(VENV)/.installed ## Format the Java (palantir-java-format, license headers) and Python (ruff) sources in place
	mvn $(MVN_FLAGS) -q spotless:apply
	$(VENV)/bin/ruff format .

# One unit test class (TEST=IngestServiceTest, or Class#method) and/or one integration test (IT=QueryIT), with the
# same emulators and tools as make test; the reactor builds what they need, and every other test is left out.
TEST ?=
IT   ?=
test-one: $(VENV)/.installed $(KINESIS)/node_modules/.installed $(LOCALSTACK)/.venv/.installed $(CHROMIUM)/.installed $(PROMTOOL) $(ALERTMANAGER) ## One test: make test-one TEST=Class[#method] and/or IT=ClassIT[#method]
	if [ -z "$(TEST)$(IT)" ]; then echo "usage: make test-one TEST=Class[#method] and/or IT=ClassIT[#method]" >&2; exit 2; fi
	mvn $(MVN_FLAGS) verify $(TEST_TOOLS) -Dtest='$(if $(TEST),$(TEST),NONE)' -Dit.test='$(if $(IT),$(IT),NONE)' \
	  -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Dpulse.serialIT.skip=true

# The local stack (module local/) runs from its Maven class path; the function artifacts are built by the
# same Makefile targets sam build calls. Options are make variables (docs/local-run.md).
RATE       ?= 500
DURATION   ?= 60
RAMP       ?= 10
SOURCE     ?= events/replay/sample.ndjson.gz
MODE       ?= rate
SPEED      ?= 60
WORKERS    ?= 1
# Seconds between the compactor's scheduled runs in make run (the template's CompactSchedule, rate(5 minutes),
# would not fire within a one-minute run); empty: the template's rate; 0: no scheduled runs.
COMPACT_EVERY ?= 15
PARAMS     ?=
KEEP       ?=
WORK_DIR   ?=
# BACKEND=localstack: LocalStack (host mode, installed on first use) instead of DynamoDB Local, kinesalite and moto;
# with LOCALSTACK_URL=http://127.0.0.1:4566 the LocalStack already running there (e.g. in Docker) instead of starting one.
BACKEND        ?=
LOCALSTACK_URL ?=
BACKEND_ARGS    = $(if $(BACKEND),--backend "$(BACKEND)") $(if $(LOCALSTACK_URL),--localstack-url "$(LOCALSTACK_URL)")
LOCALSTACK_DEP  = $(if $(and $(filter localstack,$(BACKEND)),$(if $(LOCALSTACK_URL),,yes)),$(LOCALSTACK)/.venv/.installed)
LOCAL_RUN  = java -XX:-UsePerfData --enable-native-access=ALL-UNNAMED -cp "local/target/classes:$$(cat local/target/classpath.txt)" dev.pulse.local.Main

local-stack: $(VENV)/.installed $(KINESIS)/node_modules/.installed $(LOCALSTACK_DEP)
	mvn $(MVN_FLAGS) -q package -DskipTests

run: local-stack ## The whole pipeline on 127.0.0.1 with a load run and canary check (RATE, DURATION, SOURCE, MODE, COMPACT_EVERY, KEEP=1, BACKEND=localstack)
	$(LOCAL_RUN) run $(BACKEND_ARGS) --rate "$(RATE)" --duration "$(DURATION)" --ramp "$(RAMP)" --source "$(SOURCE)" --mode "$(MODE)" \
	  --speed "$(SPEED)" --workers "$(WORKERS)" $(if $(COMPACT_EVERY),--schedule-every "$(COMPACT_EVERY)") \
	  $(foreach p,$(PARAMS),--param "$(p)") $(if $(filter 1 yes true,$(KEEP)),--keep,) \
	  $(if $(WORK_DIR),--work-dir "$(WORK_DIR)")

invoke: local-stack ## One handler with event files in turn, no Docker: make invoke FUNCTION=IngestFunction EVENT="events/ingest-kinesis-native.json ..." [ENV="K=V ..."]
	$(LOCAL_RUN) invoke $(BACKEND_ARGS) --function "$(FUNCTION)" $(foreach e,$(EVENT),--event "$(e)") $(if $(filter command line,$(origin ENV)),$(foreach e,$(ENV),--env "$(e)")) $(foreach p,$(PARAMS),--param "$(p)") \
	  $(if $(WORK_DIR),--work-dir "$(WORK_DIR)")

# sam local invoke / start-api with Docker (scripts/sam-local/run.sh, docs/local-run.md): a Docker daemon of its own from
# Debian's docker.io inside a network namespace of its own, a java21 stand-in image (Debian trixie's OpenJDK 21 and the
# runtime interface client), sam build, then every event file through sam local invoke and the query and push events'
# routes through sam local start-api, against the local stack's emulators; results compared with events/expected/.
# Needs root (the daemon). Fails, never skips, when Docker cannot run. make test runs it after its Maven build.
sam-local: local-stack ## sam build, then sam local invoke (every event) and start-api (query, push routes) in Docker, checked
	scripts/sam-local/run.sh

# Benchmarks (module bench/): each hot path against its baseline in the same run, one line each. A full run
# records itself in docs/benchmarks.md (between the generated markers) and docs/benchmarks.json; ONLY=name,...
# or QUICK=1 (a smoke run in seconds) print and write .local/bench.md instead. cold-start measures the packaged
# artifacts, hence sam build. The cost benchmark prints the DynamoDB units a datapoint, a series-hour and a query take,
# each against its budget; docs/capacity.md prices them by hand.
ONLY         ?=
QUICK        ?=
BENCH_OUT     = $(if $(or $(ONLY),$(filter 1 yes true,$(QUICK))),.local/bench,docs/benchmarks)
BENCH_CP      = bench/target/classes:$$(cat bench/target/classpath.txt)
# The handlers measured in process run under the collector the template gives every function (Mappings Jvm:
# -XX:+UseSerialGC). Under the JVM's default G1 on 2 cores, pauses of 30-50 ms landed in 1 to 3 of the query
# benchmark's 200 warm queries and decided its p99 (11-43 ms from run to run, the same at the commit before).
BENCH_JVM     = -XX:+UseSerialGC
bench: $(VENV)/.installed $(KINESIS)/node_modules/.installed ## Benchmarks vs baselines -> docs/benchmarks.md (ONLY=name,... QUICK=1)
	mvn $(MVN_FLAGS) -q package -DskipTests -pl bench -am
	$(SAM) build
	java $(BENCH_JVM) --enable-native-access=ALL-UNNAMED -cp "$(BENCH_CP)" dev.pulse.bench.BenchMain \
	  --kinesis-dir $(CURDIR)/$(KINESIS) --moto-bin $(CURDIR)/$(VENV)/bin/moto_server --out $(BENCH_OUT).md --json $(BENCH_OUT).json \
	  $(if $(ONLY),--only "$(ONLY)") $(if $(filter 1 yes true,$(QUICK)),--quick) \
	  --command "make bench$(if $(ONLY), ONLY=$(ONLY))$(if $(filter 1 yes true,$(QUICK)), QUICK=1)"

# Coverage-guided fuzzing (Jazzer, module fuzz/): every decoder, the query API's requests and the replay line parser,
# FUZZ_SECONDS each, one JVM each at the Lambda's heap (-Xmx768m), 5 s per input; 7 harnesses that also take about
# 25 s each to start: about 10 minutes with the default. Prints per harness the executions, coverage and findings; a
# finding fails the target and its input stays under fuzz/src/test/resources/.../<Class>Inputs/<method>/, where
# make test runs it as a regression test. FUZZ_ONLY="Class#method ..." fuzzes only those.
FUZZ_SECONDS ?= 60
FUZZ_ONLY    ?=
fuzz: ## Fuzz every decoder and the query parameters with Jazzer (FUZZ_SECONDS=60 each, FUZZ_ONLY=Class#method)
	mvn $(MVN_FLAGS) -q process-test-classes -pl fuzz -am
	fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_ONLY)

lint: $(VENV)/.installed ## sam validate --lint, an offline SAM transform, cfn-lint-serverless and checkov on the template
	$(TEMPLATE_CHECKS)

build: $(VENV)/.installed ## Compile and package with Maven, then sam build (no tests)
	mvn $(MVN_FLAGS) -q package -DskipTests
	$(SAM) build

deploy: build ## sam build, then sam deploy --guided (needs AWS credentials)
	$(SAM) deploy --guided

# Failed ingest batches from the DLQ stored again, exactly: IngestFunction is invoked with each batch's original
# records; poison records are listed (docs/redrive.md: run with DRY_RUN=1 first). SET_ASIDE=1 also redrives, each
# alone, the records ingest set aside after they failed every attempt. REPUT=1 is the old, inexact mode (records
# put back on the stream; double counts what the failed attempts stored).
STACK         ?=
QUEUE_URL     ?=
STREAM        ?=
FUNCTION      ?=
DRY_RUN       ?=
MAX_MESSAGES  ?=
DELETE_POISON ?=
REPUT         ?=
ACCEPT_LOSS   ?=
SET_ASIDE     ?=
.PHONY: redrive
redrive: $(VENV)/.installed ## Redrive DLQ batches exactly: make redrive STACK=<name> (or QUEUE_URL=... STREAM=... FUNCTION=...) [DRY_RUN=1]
	$(VENV)/bin/python scripts/redrive.py --region "$(AWS_DEFAULT_REGION)" \
	  $(if $(STACK),--stack-name "$(STACK)") $(if $(QUEUE_URL),--queue-url "$(QUEUE_URL)") $(if $(STREAM),--stream-name "$(STREAM)") \
	  $(if $(FUNCTION),--function-name "$(FUNCTION)") \
	  $(if $(filter 1 yes true,$(DRY_RUN)),--dry-run) $(if $(MAX_MESSAGES),--max-messages "$(MAX_MESSAGES)") \
	  $(if $(filter 1 yes true,$(DELETE_POISON)),--delete-poison) $(if $(filter 1 yes true,$(REPUT)),--reput) \
	  $(if $(filter 1 yes true,$(ACCEPT_LOSS)),--accept-loss) $(if $(filter 1 yes true,$(SET_ASIDE)),--set-aside)

events: $(VENV)/.installed ## Regenerate events/*.json (NOW=now for timestamps that pass the ingest window today)
	$(PYTHON) scripts/gen_events.py --now "$${NOW:-2026-11-21T12:00:00Z}"
	$(VENV)/bin/python scripts/gen_kpl_events.py --now "$${NOW:-2026-11-21T12:00:00Z}"

clean: ## Remove build output (keeps .venv)
	mvn $(MVN_FLAGS) -q clean
	rm -rf .aws-sam .local
