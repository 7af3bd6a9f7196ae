#!/usr/bin/env bash
# Create benchmarks/.venv: dpconvex (editable) + scikit-learn < 1.8 + diffprivlib.
# diffprivlib 0.6.x imports only with scikit-learn < 1.8, so it gets its own
# environment; the main environment keeps its scikit-learn.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python3.11 -m venv "$here/.venv" 2>/dev/null || python3 -m venv "$here/.venv"
"$here/.venv/bin/pip" install --upgrade pip
"$here/.venv/bin/pip" install -e "$here/.." "scikit-learn<1.8" diffprivlib matplotlib
"$here/.venv/bin/python" -c "import diffprivlib, sklearn; print('diffprivlib', diffprivlib.__version__, 'scikit-learn', sklearn.__version__)"
