"""Long-term memory: durable third-person facts about the user (specs 000 and 001, issue 5).

`models` holds the values and the folder rule, `text`/`importance`/`duplicates`/`supersede`/`ranking`/
`preload` the pure decisions, `store` the `MemoryStore` protocol, `service` the use cases the tools call.
"""
