"""Probe engines: they patch the emulated kernel's text the way Linux does
(ftrace call sites, kprobes) and hand records to the guest's rings."""
from .ftrace import FtraceSites

__all__ = ["FtraceSites"]
