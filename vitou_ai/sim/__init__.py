"""Batch simulation over the rules kernel."""
