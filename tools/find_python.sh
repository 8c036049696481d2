#!/bin/sh
# Print the path of a Python interpreter of version $1 (e.g. 3.13), found the way a person's machine has one:
# python$1 on the PATH, then pyenv's versions, then uv's managed Pythons. Prints nothing and exits 1 if none.
# The Makefile uses it for the Colab stack (Python 3.13) and the Binder/legacy stacks (3.11); a variable such as
# COLAB_PYTHON=/path/to/python set on make's command line skips the search.
want=${1:?usage: tools/find_python.sh 3.13}
is_version() { "$1" -c "import sys; sys.exit(sys.version_info[:2] != tuple(map(int, '$want'.split('.'))))" 2>/dev/null; }
for candidate in "python$want" python3 python; do
    path=$(command -v "$candidate" 2>/dev/null) && is_version "$path" && { echo "$path"; exit 0; }
done
root=${PYENV_ROOT:-$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")}
for path in $(ls -d "$root"/versions/"$want"*/bin/python 2>/dev/null | sort -V -r); do
    is_version "$path" && { echo "$path"; exit 0; }
done
path=$(uv python find "$want" 2>/dev/null) && is_version "$path" && { echo "$path"; exit 0; }
exit 1
