"""Usage, cost and message counts, as Pi's session statistics (``/session``) count them.

All entries count, compacted history included: usage entries of any ``kind``, the
``usage`` of compaction and branch-summary entries, of assistant messages and of tool
results. Pass the entries of one path to get the figures for one branch.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .jsvalue import field as js_field


def _number(value: object) -> float:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


@dataclass
class UsageTotals:
    """Summed token counts and cost (``cost`` is the sum of ``usage.cost.total``)."""

    input: float = 0
    output: float = 0
    cacheRead: float = 0
    cacheWrite: float = 0
    cost: float = 0

    @property
    def total_tokens(self) -> float:
        """input + output + cacheRead + cacheWrite, as Pi's ``tokens.total``."""
        return self.input + self.output + self.cacheRead + self.cacheWrite

    def add(self, usage: object) -> bool:
        """Add one ``usage`` object; False (nothing added) when it is not an object."""
        if not isinstance(usage, dict):
            return False
        self.input += _number(usage.get("input"))
        self.output += _number(usage.get("output"))
        self.cacheRead += _number(usage.get("cacheRead"))
        self.cacheWrite += _number(usage.get("cacheWrite"))
        self.cost += _number(js_field(usage.get("cost"), "total"))
        return True


@dataclass
class SessionStats:
    """Message counts and usage totals for a list of entries."""

    user_messages: int = 0
    assistant_messages: int = 0
    tool_results: int = 0
    total_messages: int = 0
    tool_calls: int = 0
    usage: UsageTotals = field(default_factory=UsageTotals)
    #: assistant messages with no usage object (Pi 0.87.1 would throw on these)
    assistant_without_usage: int = 0

    def to_dict(self) -> dict:
        """The figures in the shape of Pi's ``getSessionStats()`` (without file/id)."""
        u = self.usage
        return {
            "userMessages": self.user_messages,
            "assistantMessages": self.assistant_messages,
            "toolCalls": self.tool_calls,
            "toolResults": self.tool_results,
            "totalMessages": self.total_messages,
            "tokens": {
                "input": u.input,
                "output": u.output,
                "cacheRead": u.cacheRead,
                "cacheWrite": u.cacheWrite,
                "total": u.total_tokens,
            },
            "cost": u.cost,
        }


def session_stats(entries: list) -> SessionStats:
    """Count messages and sum usage over ``entries`` (full entry dicts).

    >>> s = session_stats([
    ...     {"type": "usage", "kind": "title", "usage": {"input": 5, "output": 1,
    ...      "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.5}}},
    ...     {"type": "message", "message": {"role": "assistant", "content": [
    ...      {"type": "toolCall"}, {"type": "text"}], "usage": {"input": 10, "output": 2,
    ...      "cacheRead": 0, "cacheWrite": 0, "cost": {"total": 0.25}}}}])
    >>> s.tool_calls, s.usage.total_tokens, s.usage.cost
    (1, 18, 0.75)
    """
    stats = SessionStats()
    for entry in entries:
        kind = js_field(entry, "type")
        if kind == "usage" or (
            kind in ("branch_summary", "compaction") and js_field(entry, "usage")
        ):
            stats.usage.add(js_field(entry, "usage"))
        if kind != "message":
            continue
        stats.total_messages += 1
        message = js_field(entry, "message")
        role = js_field(message, "role")
        if role == "user":
            stats.user_messages += 1
        elif role == "toolResult":
            stats.tool_results += 1
            if js_field(message, "usage"):
                stats.usage.add(js_field(message, "usage"))
        elif role == "assistant":
            stats.assistant_messages += 1
            content = js_field(message, "content")
            if isinstance(content, list):
                stats.tool_calls += sum(1 for b in content if js_field(b, "type") == "toolCall")
            if not stats.usage.add(js_field(message, "usage")):
                stats.assistant_without_usage += 1
    return stats
