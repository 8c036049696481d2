# Two commands do everything on a fresh machine with Python 3.11:
#   make lab    set up .venv and open JupyterLab on the first lesson
#   make test   set up .venv and run every test
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
export TUTOR_DATA_SOURCE ?= synthetic
export TF_CPP_MIN_LOG_LEVEL ?= 3

.PHONY: lab test unit nbval browser envs notebooks benchmarks clean

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(STAMP)

lab: $(STAMP)
	$(VENV)/bin/jupyter lab notebooks/00_start_here.ipynb

test: unit nbval

unit: $(STAMP)
	$(PY) -m pytest tests -q

nbval: $(STAMP)
	$(PY) -m pytest -q --nbval --nbval-current-env --nbval-sanitize-with tests/sanitize.cfg notebooks

# Re-execute every notebook and store its outputs (run after editing a lesson).
notebooks: $(STAMP)
	$(PY) -m tutor.nbtools notebooks/*.ipynb

clean:
	rm -rf $(VENV) test-artifacts
