"""The offline demo: a small, realistic repository built with git, and its report."""
