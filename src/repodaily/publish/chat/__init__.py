"""Chat publishers: a report's summary, never the whole report, posted to a team's chat or any webhook.

::

    summary     Summary, summarize, fit: what a message says, deterministic, cut to fit
    escape      foreign text made inert for each medium (rich text, robot Markdown, Slack mrkdwn)
    settings    the settings models; the webhook URL and secret read from the environment
    transport   Sender: one message, bounded in time, paced, retried only when safe
    publisher   ChatPublisher, and the Platform each platform module implements
    feishu, dingtalk, wecom, slack, webhook     the platforms
    markdown    the Markdown message DingTalk and WeCom share
    plugin      the registration
"""
