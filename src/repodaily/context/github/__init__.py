"""The GitHub context source: the pull request each commit came from, and the releases of the day.

- :mod:`.settings`: the ``[github]`` table and which repositories it serves;
- :mod:`.text`: a pull request's author-written text made safe to carry (images and comments out, bounded);
- :mod:`.pulls`: pull requests read from GitHub's GraphQL and REST answers;
- :mod:`.releases`: the releases published in a day, from the paged REST listing;
- :mod:`.fetch`: the requests, through the store's cache, conditional where GitHub allows;
- :mod:`.source`: a day's context, and the run-wide stop when GitHub refuses;
- :mod:`.plugin`: the registration, which defers importing the HTTP client.
"""
