"""The ``email`` publisher: each report as one e-mail, by SMTP (:mod:`.plugin`)."""
