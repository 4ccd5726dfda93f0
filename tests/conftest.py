import os
import sys
from pathlib import Path

# Pi's goldens and the stored outputs are recorded with TZ=UTC; a date-time without an
# offset is local time (pisession.js.date), so the tests read it in UTC too (the kernels
# nbval starts inherit it). Tests about other zones set TZ themselves.
os.environ["TZ"] = "UTC"

sys.path.insert(0, str(Path(__file__).parent))
