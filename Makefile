# Two commands do everything on a fresh machine:
#   make lab    set up .venv and open JupyterLab on the first lesson (needs Python 3.11 and make)
#   make test   set up every test environment and run every test (also needs Python 3.13, for Colab's stack,
#               and root or an installed Chromium, for the browser tests; `make check-tools` says what is missing)
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# --no-compile, and PYTHONDONTWRITEBYTECODE taken out: see CONTRIBUTING.md, "Environments and browsers".
PIP_FLAGS := --quiet --disable-pip-version-check --no-compile
unexport PYTHONDONTWRITEBYTECODE
export TUTOR_DATA_SOURCE ?= synthetic
export TF_CPP_MIN_LOG_LEVEL ?= 3

.PHONY: lab test check-tools quick unit nbval browser envs notebooks links benchmarks clean editions editions-nbval

# binder/install-slideshow: the slideshow's settings and the explorers' stand-in in it (see binder/postBuild).
SLIDESHOW := binder/install-slideshow binder/overrides.json $(wildcard binder/labextensions/*/*.json binder/labextensions/*/static/*)

$(STAMP): requirements.txt pyproject.toml $(SLIDESHOW)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install $(PIP_FLAGS) --upgrade pip
	$(PY) -m pip install $(PIP_FLAGS) -r requirements.txt
	env PATH="$(CURDIR)/$(VENV)/bin:$$PATH" binder/install-slideshow
	$(INSTALL_LOCK) $(PY) -m pip install $(PIP_FLAGS) --no-deps -e .
	touch $(STAMP)

# Jupyter refuses to run as root unless told; containers and CI machines often are root.
lab: $(STAMP)
	$(VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/00_start_here.ipynb

# Everything CI runs: unit tests, the lessons (under nbval, in the Binder environment, twice in one kernel),
# lesson 05 on the legacy tensorflow-addons stack, the Colab stack, and a real browser. The schedule and why it is
# so: CONTRIBUTING.md, "Commands"; its measured times: benchmarks/README.md.
test: check-tools $(STAMP)
	$(MAKE) --no-print-directory -j4 --output-sync=target binder-env colab-env unit browser legacy-env editions-nbval BINDER_QUOTA=0

# What make test needs besides Python 3.11 and make: one sentence per missing thing, before anything is installed.
check-tools:
	@test -n "$(COLAB_PYTHON)" || { echo "make test needs Python 3.13 for Colab's stack: install it (your system's python3.13, pyenv install 3.13, or uv python install 3.13) or set COLAB_PYTHON=/path/to/python3.13"; exit 1; }
	@test -n "$(BINDER_PYTHON)" || { echo "make test needs Python 3.11 (Binder's and the legacy stack's): install it or set BINDER_PYTHON=/path/to/python3.11"; exit 1; }
	@command -v chromium >/dev/null || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; } || { echo "make test needs Chromium for the browser tests: install it (Debian/Ubuntu: apt-get install chromium) or run make unit"; exit 1; }

# Installing this checkout writes its build files into the checkout: one such install at a time.
INSTALL_LOCK := mkdir -p build && flock build/install.lock

unit: $(STAMP)
	$(PY) -m pytest tests -q --ignore=tests/browser

# The unit tests not marked slow (pyproject.toml's markers): a couple of minutes, while editing.
quick: $(STAMP)
	$(PY) -m pytest tests -q --ignore=tests/browser -m "not slow"

# tests/conftest.py is loaded as a plugin: it keeps stderr out of nbval's comparison and picks the offline digits.
# This runs the lessons once in .venv's kernel (quick, while editing); `make binder-env` runs them under nbval too,
# in the Binder venv's kernel and twice in one kernel, and that is what `make test` runs.
NBVAL := -m pytest -p tests.conftest -q -p no:cacheprovider --nbval --nbval-sanitize-with tests/sanitize.cfg
nbval: $(STAMP)
	$(PY) $(NBVAL) --nbval-current-env notebooks/*.ipynb

# The Japanese and Chinese editions (CONTRIBUTING.md, "Editions"): notebooks/<lang>/ and book/<lang>/ rebuilt from the
# English and the catalogs in locale/, tutor's catalogs compiled, and the edition notebooks' outputs re-recorded.
# `python -m tools.editions check` (a unit test runs it) fails on anything missing, outdated or different.
editions: $(STAMP)
	$(PY) -m tools.editions build --execute

# Every edition lesson once under nbval in .venv's kernel, compared with its committed outputs, then its exercises
# checked with their solutions, in its language (binder-env runs the English lessons twice; an edition has their code).
editions-nbval: $(STAMP)
	$(if $(wildcard notebooks/ja/*.ipynb notebooks/zh/*.ipynb),$(PY) $(NBVAL) -p tools.nbval_twice --nbval-current-env \
		--check-exercises $(wildcard notebooks/ja/*.ipynb notebooks/zh/*.ipynb),@echo "no edition notebooks")

# Re-execute notebooks and store their outputs (run after editing a lesson): make notebooks [LESSONS="notebooks/03_*.ipynb"]
LESSONS ?= notebooks/*.ipynb
notebooks: $(STAMP)
	$(PY) -m tools.nbtools $(LESSONS)

# Point every badge, Colab cell, Next link and the README's lesson table at pyproject.toml's repository,
# or at a fork: make links REPO=you/your-fork REF=main
links: $(STAMP)
	$(PY) -m tools.links $(if $(REPO),--repo $(REPO)) $(if $(REF),--ref $(REF))
	$(PY) -m tools.editions build

# A classroom (book/en/instructors.md, "A classroom of 30"): the environment Binder builds, from exactly binder/ and
# without Docker, in .venv-classroom, then JupyterLab on lesson 00 with binder/start's settings. Linux only, as
# Binder is (tensorflow-cpu). WHEELHOUSE=wheelhouse installs with no network, from what `make wheelhouse` fetched.
.PHONY: classroom wheelhouse
CLASSROOM_VENV := .venv-classroom
WHEELHOUSE ?=
FROM_WHEELHOUSE = $(if $(WHEELHOUSE),--no-index --find-links $(abspath $(WHEELHOUSE)))

$(CLASSROOM_VENV)/.installed: binder/requirements.txt
	rm -rf $(CLASSROOM_VENV)
	$(BINDER_PYTHON) -m venv $(CLASSROOM_VENV)
	$(CLASSROOM_VENV)/bin/python -m pip install $(PIP_FLAGS) $(FROM_WHEELHOUSE) -r binder/requirements.txt
	touch $@

# postBuild builds tutor from the checkout: offline, pip finds the build tool (setuptools) in the wheelhouse too.
classroom: $(CLASSROOM_VENV)/.installed
	$(INSTALL_LOCK) env PATH="$(CURDIR)/$(CLASSROOM_VENV)/bin:$$PATH" \
		$(if $(WHEELHOUSE),PIP_NO_INDEX=1 PIP_FIND_LINKS="$(abspath $(WHEELHOUSE))") binder/postBuild
	binder/start $(CLASSROOM_VENV)/bin/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) notebooks/00_start_here.ipynb

# Every wheel the classroom's environment needs, for this machine's platform and Binder's Python (runtime.txt).
wheelhouse:
	$(BINDER_PYTHON) -m pip download --quiet --disable-pip-version-check --only-binary=:all: --dest wheelhouse \
		-r binder/requirements.txt "$$(sed -n 's/^requires = \["\(.*\)"\]/\1/p' pyproject.toml)"

# Every environment and build folder the targets above make.
clean:
	rm -rf $(VENV) .venv-* build test-artifacts wheelhouse

# ---------------------------------------------------------------------------
# Launch-anywhere checks. Each target builds what it needs.
#   make browser     real-browser tests of every explorer (JupyterLab + Notebook 7, Chromium)
#   make binder-env  the Binder image's Python packages in a fresh venv; every lesson under nbval in its kernel,
#                    twice in one kernel, < 1.5 GB (tools/nbval_twice.py), then once inside a 1-CPU quota
#                    (a cgroup, as mybinder.org limits a user; skipped where none can be made)
#   make colab-env   Colab's stack (Python 3.13, TF 2.20, ipywidgets 7.7.1): unit tests + lessons 01-03, 07, 14
#   make benchmarks  timing and memory tables (a person reads them; not a pass/fail test)
.PHONY: binder-env colab-env
BINDER_PYTHON ?= $(shell tools/find_python.sh 3.11)
BINDER_QUOTA  ?= 1
BINDER_VENV   := .venv-binder
COLAB_PYTHON  ?= $(shell tools/find_python.sh 3.13)
COLAB_VENV    := .venv-colabtest

.PHONY: chromium
chromium:
	command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium >/dev/null)
	fc-list :lang=ja | grep -q . || (apt-get update -qq && apt-get install -y -qq fonts-noto-cjk >/dev/null)  # the edition's layout cases

# The Colab-stack venv first: the layout tests run ipywidgets 7.7.1's front end (nbclassic) from it.
browser: $(STAMP) site chromium $(COLAB_VENV)/.installed
	TUTOR_BROWSER_TESTS=1 $(PY) -m pytest tests/browser -q -rs -p no:cacheprovider

# Like repo2docker: install exactly binder/requirements.txt, then run postBuild from the
# repository root (again on every run, so the installed tutor matches the checkout).
$(BINDER_VENV)/.installed: binder/requirements.txt
	rm -rf $(BINDER_VENV)
	$(BINDER_PYTHON) -m venv $(BINDER_VENV)
	$(BINDER_VENV)/bin/python -m pip install $(PIP_FLAGS) -r binder/requirements.txt
	touch $@

binder-env: $(BINDER_VENV)/.installed $(STAMP)
	$(INSTALL_LOCK) env PATH="$(CURDIR)/$(BINDER_VENV)/bin:$$PATH" binder/postBuild
	binder/start $(BINDER_VENV)/bin/python tests/envs/check_binder.py
	binder/start $(PY) $(NBVAL) -p tools.nbval_twice --kernel-python $(BINDER_VENV)/bin/python --run-twice \
		--check-exercises notebooks/*.ipynb
ifeq ($(BINDER_QUOTA),1)
	binder/start $(BINDER_VENV)/bin/python tests/envs/check_binder.py --quota
else
	@echo "1-CPU quota: skipped (BINDER_QUOTA=$(BINDER_QUOTA): make test leaves it out to stay within CI's time)"
endif

$(COLAB_VENV)/.installed: tests/envs/colab-requirements.txt
	rm -rf $(COLAB_VENV)
	$(COLAB_PYTHON) -m venv $(COLAB_VENV)
	$(COLAB_VENV)/bin/python -m pip install $(PIP_FLAGS) -r tests/envs/colab-requirements.txt
	$(INSTALL_LOCK) $(COLAB_VENV)/bin/python -m pip install $(PIP_FLAGS) --no-deps -e .
	touch $@

colab-env: $(COLAB_VENV)/.installed
	$(COLAB_VENV)/bin/python tests/envs/check_colab.py

envs: binder-env colab-env

benchmarks: $(STAMP)
	$(PY) benchmarks/notebooks.py
	$(PY) benchmarks/widgets.py
	$(PY) benchmarks/augment.py 10000
	$(PY) benchmarks/timeline.py
	$(PY) benchmarks/profile.py
	$(PY) benchmarks/tfrecord_training.py
	$(PY) benchmarks/service.py

# ---------------------------------------------------------------------------
# Lesson 05 in the last stack where tensorflow-addons installs (TF 2.15.1, Keras 2,
# tensorflow-addons 0.23, Python 3.11): the augmentation tests, where the tfa tests
# run instead of being skipped, and tests/test_augment_notebook_legacy.py, which
# executes notebook 05 in this venv's kernel (no outputs written) and checks that the
# tfa path ran and nothing reached stderr. The pipeline doctor's tests run here too,
# since it reads TensorFlow's op graph, which changes between versions.
.PHONY: legacy-env
LEGACY_PYTHON ?= $(BINDER_PYTHON)
LEGACY_VENV   := .venv-legacy

$(LEGACY_VENV)/.installed: tests/envs/legacy-requirements.txt
	$(LEGACY_PYTHON) -m venv $(LEGACY_VENV)
	$(LEGACY_VENV)/bin/python -m pip install $(PIP_FLAGS) -r tests/envs/legacy-requirements.txt
	$(INSTALL_LOCK) $(LEGACY_VENV)/bin/python -m pip install $(PIP_FLAGS) --no-deps -e .
	touch $@

legacy-env: $(LEGACY_VENV)/.installed
	$(LEGACY_VENV)/bin/python -m pytest -q -rs -p no:cacheprovider tests/test_augment*.py tests/test_bench.py tests/exercises/test_lesson04.py tests/exercises/test_lesson05.py tests/facts/test_lesson04.py tests/facts/test_lesson05.py tests/test_doctor*.py tests/test_reading.py tests/test_profile*.py

# Lessons 07 and 09: overhead of recorded timelines (target: within 5%) and timeline_explorer redraw time.
.PHONY: benchmark-timeline
benchmark-timeline: $(STAMP)
	$(PY) benchmarks/timeline.py

# Lessons 10 and 12: TFRecord parsing (per record vs per batch) and training step times.
.PHONY: bench-training
bench-training: $(STAMP)
	$(PY) benchmarks/tfrecord_training.py

# ---------------------------------------------------------------------------
# The course website: a Jupyter Book 1 built from book/ and the committed notebooks (not re-executed),
# in its own venv from book/requirements.txt (the learner's requirements.txt does not change). Warnings are
# errors; the last line printed is the built index.html. tests/browser/test_site.py checks it (make browser);
# .github/workflows/pages.yml publishes build/site/_build/html.
.PHONY: site
SITE_VENV := .venv-site

$(SITE_VENV)/.installed: book/requirements.txt
	rm -rf $(SITE_VENV)
	$(PYTHON) -m venv $(SITE_VENV)
	$(SITE_VENV)/bin/python -m pip install $(PIP_FLAGS) -r book/requirements.txt
	touch $@

site: $(SITE_VENV)/.installed
	@$(SITE_VENV)/bin/python -m tools.site
