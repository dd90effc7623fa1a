# Two entry points: `make demo` and `make test`. Each sets up .venv first.
# The demo needs only the runtime; the tests also need the test extras (among
# them the local LLM server, which compiles once and is kept in pip's wheel cache).
PYTHON ?= python3
VENV ?= .venv
RUNTIME := $(VENV)/.installed-runtime
TESTING := $(VENV)/.installed-test

.PHONY: setup browser demo test bench clean

setup: $(TESTING) browser

# The browser tests drive Debian's Chromium (Playwright cannot download its own here).
# Installed only when missing, so a second run costs nothing; without root it says so and the tests skip.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then \
		true; \
	elif [ "$$(id -u)" = 0 ]; then \
		apt-get install -y chromium chromium-driver || (apt-get update && apt-get install -y chromium chromium-driver); \
	else \
		echo "make: /usr/bin/chromium or /usr/bin/chromedriver is missing and this is not root:" \
			"the browser tests will be skipped (as root: apt-get install -y chromium chromium-driver)"; \
	fi

$(RUNTIME): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e .
	touch $(RUNTIME)

$(TESTING): $(RUNTIME)
	$(VENV)/bin/pip install --quiet -e '.[test]'
	touch $(TESTING)

demo: $(RUNTIME)
	$(VENV)/bin/repodaily demo

test: $(TESTING) browser
	$(VENV)/bin/ruff check src tests bench
	$(VENV)/bin/ruff format --check src tests bench
	$(VENV)/bin/mypy
	$(VENV)/bin/pytest

bench: $(TESTING)
	$(VENV)/bin/python bench/collect_bench.py
	$(VENV)/bin/python bench/llm_bench.py
	$(VENV)/bin/python bench/memory_bench.py
	$(VENV)/bin/python bench/site_bench.py

clean:
	rm -rf $(VENV) repodaily-demo .pytest_cache .mypy_cache
