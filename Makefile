# Thin aliases for dev.py (which needs only python3 and pip).
PYTHON ?= python3

.PHONY: test book open lab setup clean
test:
	$(PYTHON) dev.py test
book:
	$(PYTHON) dev.py book
open:
	$(PYTHON) dev.py book --open
lab:
	$(PYTHON) dev.py lab
setup:
	$(PYTHON) dev.py setup
clean:
	rm -rf _build .pytest_cache .hypothesis
