#!/bin/sh
# Installs numpy for python3, which scripts/akushu_dataset.py (the dataset reader) and its
# test (tests/python_reader.rs) need. From PyPI, pinned; into the user's site-packages when
# not root. Nothing happens when numpy is already importable.
set -eu
if python3 -c 'import numpy' >/dev/null 2>&1; then
    echo "numpy already installed: $(python3 -c 'import numpy; print(numpy.__version__)')"
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    python3 -m pip install --quiet 'numpy==2.2.6'
else
    python3 -m pip install --quiet --user 'numpy==2.2.6'
fi
python3 -c 'import numpy; print("numpy", numpy.__version__)'
