"""Session-wide test settings."""

import os
import tempfile

# The solver's persistent edge cache goes to a private folder, not the user's ~/.cache.
os.environ.setdefault("RACESL_CACHE_DIR", tempfile.mkdtemp(prefix="racesl-test-cache-"))
