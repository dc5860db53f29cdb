"""tracefs-sim: a tracefs-compatible FUSE filesystem backed by an emulated x86-64 kernel."""
