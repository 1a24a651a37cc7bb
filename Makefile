# Set-up and entry points. `make run` and `make test` each do all the set-up they need.
SHELL := /bin/bash
VENV := .venv
PYTHON ?= python3
# What building KenLM needs, as Debian/Ubuntu packages (the pipeline names them too if missing).
DEBIAN_PACKAGES := cmake g++ make git perl xz-utils libboost-program-options-dev \
	libboost-system-dev libboost-thread-dev libboost-test-dev zlib1g-dev libbz2-dev liblzma-dev
# The tests' check that a dry run starts no process watches it with strace.
TEST_PACKAGES := strace
PACKAGES = $(DEBIAN_PACKAGES)
CORES ?= 8

.PHONY: help setup setup-neural system-packages lock run test kenlm-tools smoke demo readme readme-check lint

# One step at a time, whatever -j says: two goals of one `make -j` would otherwise each install
# into .venv/ at once. Only `make test` runs steps side by side, in a make of its own, where
# those that install write different packages.
ifndef LMGAP_SIDE_BY_SIDE
.NOTPARALLEL:
endif

setup: system-packages $(VENV)/.installed  ## the Debian packages KenLM needs, and .venv/ with the pinned packages and KenLM's module

# The neural models' packages (torch, transformers, tokenizers: about 1 GB), the `neural` extra of
# pyproject.toml: for `neural:` in config.yaml, `make demo` and the tests; `make run` leaves them out.
setup-neural: setup $(VENV)/.neural-installed  ## setup, and the neural models' packages (torch, transformers, tokenizers: about 1 GB)

# Installs missing Debian packages when run as root; otherwise prints the command to run.
system-packages:  ## the Debian packages KenLM's build needs (as root; else the apt-get line to run)
	@if command -v dpkg-query >/dev/null; then \
	  missing=$$(for p in $(PACKAGES); do \
	    dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || echo $$p; done); \
	  if [ -n "$$missing" ]; then \
	    if [ "$$(id -u)" = 0 ]; then \
	      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	    else \
	      echo "Missing system packages; install them with: sudo apt-get install $$missing" >&2; exit 1; \
	    fi; \
	  fi; \
	else \
	  echo "Not a Debian system: install cmake, g++, make, Boost, zlib, bzip2 and liblzma headers yourself." >&2; \
	fi

# The packages uv.lock pins, Snakemake among them, and the pipeline's own package (editable, with
# its `lmgap` command), installed by uv from the public package index: it downloads, unpacks and
# compiles them side by side, 11 s where pip takes 34. --locked refuses a uv.lock behind
# pyproject.toml (`make lock` writes it again); --inexact keeps what the steps below install with
# pip. uv reads none of pip's settings: a mirror of your own goes in UV_DEFAULT_INDEX, a
# certificate bundle in SSL_CERT_FILE.
UV := uv==0.13.8
$(VENV)/.packages: uv.lock pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet $(UV)
	$(VENV)/bin/uv sync --quiet --locked --inexact --compile-bytecode --extra slurm
	touch $@

# uv.lock again after an edit to pyproject.toml's requirements, each pin kept where it still fits
# (`uv lock --upgrade-package NAME` moves one).
lock:  ## uv.lock written again after an edit to pyproject.toml's requirements
	$(VENV)/bin/uv lock

# KenLM's Python module built from its pinned source distribution (pip checks its sha256; no
# cached wheel, which may have been built for another maximum order). kenlm's setup.py first
# builds, with cmake, a standalone library that the module never links, as long again as the
# module's own compile: a cmake that does nothing comes first on pip's PATH (as in
# lmgap/ngram/build.py for orders above six).
NO_CMAKE := $(CURDIR)/$(VENV)/no-cmake
$(VENV)/.installed: $(VENV)/.packages requirements-kenlm.txt
	mkdir -p "$(NO_CMAKE)" && printf '#!/bin/sh\nexit 0\n' > "$(NO_CMAKE)/cmake" && chmod +x "$(NO_CMAKE)/cmake"
	PATH="$(NO_CMAKE):$$PATH" $(VENV)/bin/pip install --quiet --no-deps --no-binary kenlm --no-build-isolation \
	  --no-cache-dir --require-hashes -r requirements-kenlm.txt
	touch $@

# The `neural` extra of pyproject.toml at uv.lock's versions, installed by pip, which finds a
# CPU-only PyTorch where one lies on the machine (uv would fetch the index's, with CUDA). They
# need nothing of the kenlm module's build: `make test` installs them beside it. The two pip
# commands write different packages: the kenlm module's installs kenlm alone, and this one may
# change no version uv.lock pins (-c), the build's setuptools among them.
NEURAL = $(shell $(PYTHON) -c 'import shlex, tomllib; \
  print(*map(shlex.quote, tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["neural"]))')
NO_NEURAL = $(PYTHON) (3.11 or newer) read no `neural` extra from pyproject.toml
NEURAL_PINS := $(VENV)/neural-pins.txt
$(VENV)/.neural-installed: $(VENV)/.packages
	$(VENV)/bin/uv export --quiet --locked --extra neural --no-hashes --no-emit-project --no-header \
	  --format requirements-txt -o $(NEURAL_PINS)
	$(VENV)/bin/pip install --quiet -c $(NEURAL_PINS) $(or $(NEURAL),$(error $(NO_NEURAL)))
	touch $@

# The main job: every model of config.yaml and the tables, the jobs running at once within 80% of
# the machine's memory (Snakemake's --resources mem_mb: a workflow cannot set it itself).
MEM_MB := $(shell awk '/^MemTotal:/ {print int($$2 * 0.8 / 1024)}' /proc/meminfo 2>/dev/null)
run: setup  ## set-up, then the main job: every model of config.yaml and the tables
	$(VENV)/bin/snakemake --cores $(CORES) $(if $(MEM_MB),--resources mem_mb=$(MEM_MB))

# The test suite, as CI runs it. KenLM's tools are built first, by the pipeline's own rule (with
# both cores, once), for the tests to use. That build needs only Snakemake's packages, so it runs
# beside the rest of the set-up: KenLM's Python module (a compile on one core) and the neural
# packages (unpacking, then compiling their bytecode), side by side too. The package's bytecode
# is then written once: each of the suite's thousands of jobs imports lmgap, and where Python
# writes no bytecode (PYTHONDONTWRITEBYTECODE) every job compiled its modules again: 0.04 of a
# small job's 0.28 s.
KENLM_TOOLS := resources/kenlm/kenlm-0.3.0-maxorder6/bin
test: PACKAGES = $(DEBIAN_PACKAGES) $(TEST_PACKAGES)
test: system-packages $(VENV)/.packages  ## set-up, KenLM's tools, then the test suite, as CI runs it
	$(MAKE) -j3 LMGAP_SIDE_BY_SIDE=1 $(VENV)/.installed $(VENV)/.neural-installed kenlm-tools
	$(VENV)/bin/python -m compileall -q workflow/lmgap
	$(VENV)/bin/pytest

kenlm-tools: $(VENV)/.packages  ## KenLM's lmplz, query and build_binary, built by the pipeline's own rule
	$(VENV)/bin/snakemake --cores 2 $(KENLM_TOOLS)/lmplz $(KENLM_TOOLS)/query $(KENLM_TOOLS)/build_binary

# The Snakemake workflow template's smoke run: every job of the main run on .test/'s tiny corpus,
# then the report (in .test/report.html). About half a minute once KenLM's tools are built.
smoke: setup kenlm-tools  ## the workflow on .test/'s tiny corpus, then its report: the template's smoke test
	$(VENV)/bin/snakemake --directory .test --cores 2
	$(VENV)/bin/snakemake --directory .test --report report.html

# A small generated corpus in the challenge's format, for trying the pipeline offline, with one
# small neural model and one cloze model beside the n-grams.
DEMO_CORPUS := resources/demo/corpus
demo: setup-neural $(DEMO_CORPUS)/dev-0/expected.tsv  ## a generated corpus, and the pipeline on it with a small neural and a cloze model
	$(VENV)/bin/snakemake --cores $(CORES) --config 'corpus={"source": "resources/demo/corpus"}' \
	  'neural={"small": {"train": {"steps": 300}}, "cloze": {"kind": "cloze", "train": {"steps": 300}}}'

# For developers: the demo, then its tables written into the README's marked blocks, and every
# table's columns into the docs from their declarations. readme-check (CI runs it) compares the
# README's tables with a new demo run's, timing cells aside: an edit that moves a demo figure
# fails until `make readme` shows it (see docs/layout.md).
readme: demo  ## the demo, then its tables into the README and every table's columns into docs/
	$(VENV)/bin/python tests/readme_tables.py results/tables README.md
	$(VENV)/bin/python tests/readme_tables.py --columns README.md docs/*.md

readme-check: demo  ## the demo, and the README's tables checked against it (CI runs it)
	$(VENV)/bin/python tests/readme_tables.py --check results/tables README.md

# Written again when the generator changes, so that the demo shows what the README shows.
$(DEMO_CORPUS)/dev-0/expected.tsv: benchmarks/generate_corpus.py | $(VENV)/.installed
	rm -rf $(DEMO_CORPUS)
	$(VENV)/bin/python benchmarks/generate_corpus.py --words 1000000 --dev-words 100000 $(DEMO_CORPUS)

lint: setup  ## snakemake --lint, snakefmt, ruff check and ruff format
	$(VENV)/bin/snakemake --lint
	$(VENV)/bin/snakefmt --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

# Every target with what it does: the `## ` note on its line above.
help:  ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | sed -E 's/^([a-z-]+):.*## (.*)/\1\t\2/' | expand -t 18
