"""The global shortcut that starts a conversation from any application: the key combination, its grab on X11
and through the desktop portal on Wayland, and the one owner that grabs it again when Settings change it."""
