"""The languages Parley speaks, each one folder of data (`languages/<code>/`) that a translator edits."""
