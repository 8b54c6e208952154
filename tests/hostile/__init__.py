"""The hostile-input suite (issue 34): bad input of every kind a user, an import, a model, a tool server or a
file can bring, driven from the user's side (the CLI through its real entry or as a process of its own, the
window offscreen), one module per surface. Each case asserts its one clear line and exit code, that no raw
control character was printed, and that everything around it (`tests.hostile.around`) is as it was."""
