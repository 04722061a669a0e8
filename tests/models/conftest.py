"""pytest setup shared by the exporter tests: the repository root on sys.path so tests
import `models.exporter...` the way models/export.py does, whatever the working directory."""
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
