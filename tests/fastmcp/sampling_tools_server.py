"""A FastMCP server (PyPI `fastmcp`, the version pinned in scripts/setup.sh) whose tool samples
*with tools*: `plan_trip` asks the client's LLM through `ctx.sample(..., tools=[get_weather])`.
FastMCP runs the tool loop itself: when the completion calls `get_weather`, FastMCP runs it here
and sends its result back in the next `sampling/createMessage`, until the model answers in text.

Used by tests/sampling_fastmcp.rs over stdio. `get_weather` appends each city it is asked about
to `calls`, and `plan_trip` reports them, so the test sees that the tool really ran here.
"""

from fastmcp import Context, FastMCP

mcp = FastMCP("sampling-tools")
calls: list[str] = []


def get_weather(city: str) -> str:
    """The current weather in a city."""
    calls.append(city)
    return f"sunny, 21 °C in {city}"


@mcp.tool
async def plan_trip(city: str, ctx: Context) -> str:
    """Plans a day out in `city`, asking the client's LLM, which may check the weather."""
    calls.clear()
    result = await ctx.sample(
        f"Plan a day out in {city}. Check the weather first.",
        system_prompt="You plan day trips. Use the tools you are given.",
        max_tokens=200,
        tools=[get_weather],
    )
    return f"{result.text}\n[get_weather ran for: {', '.join(calls) or 'nobody'}]"


if __name__ == "__main__":
    mcp.run(transport="stdio", show_banner=False)
