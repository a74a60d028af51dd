import sys
from pathlib import Path

# The drivers under test (src/test/bench); they put the shared harness on the path themselves.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
