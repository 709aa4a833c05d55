# Thin aliases for dev.py (which needs only python3 and pip).
PYTHON ?= python3

.PHONY: test book open lab setup offline clean
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
offline:  # after `make book`: no page may load anything from another host
	.venv/bin/python scripts/check_offline.py _build/html
clean:
	rm -rf _build .pytest_cache .hypothesis
