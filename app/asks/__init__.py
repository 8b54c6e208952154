"""One typed question and its answer, asked in this process (`parley ask` with nobody listening) or from
another one: the process running the voice loop serves a private socket in the data folder, and `parley ask`
reaches the running Parley through it."""
