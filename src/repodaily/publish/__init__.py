"""Publish: deliver rendered reports (files now; GitHub, e-mail and chat build on the same idea)."""
