"""The `parley` command line (`app.cli.main`; `ui.launcher` starts it).

Importing it keeps numpy's BLAS (OpenBLAS) to one thread unless `OPENBLAS_NUM_THREADS` says otherwise,
before numpy is first imported: the vectors Parley multiplies are small, and on a 2-core machine
OpenBLAS's threads spin against the event loop, the SQLite worker and the audio callbacks. Embedding one
chat topic with all-MiniLM-L6-v2 took 7 s with its default threads and 0.36 s with one on this machine under
load (`parley chats import` of 5,000 small chats took 28 minutes before).
"""

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
