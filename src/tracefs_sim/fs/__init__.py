"""The FUSE layer: an inode tree bound to trace-core objects, served by pyfuse3."""

from .layout import build_tree
from .operations import TracefsOperations
from .tree import Tree

__all__ = ["Tree", "TracefsOperations", "build_tree"]
