"""The brands the default card art is drawn for (artwork/generate.py) and published under
(artwork/defaults.py): brand: (name shown, background top colour, bottom colour)."""

BRANDS = {
    "VISA": ("VISA", (26, 31, 113), (36, 86, 196)),
    "MASTER": ("Mastercard", (40, 40, 48), (235, 0, 27)),
    "AMEX": ("AMERICAN EXPRESS", (0, 111, 207), (0, 62, 130)),
    "DINERS": ("Diners Club", (0, 78, 112), (0, 120, 160)),
    "DISCOVER": ("DISCOVER", (50, 50, 50), (255, 96, 0)),
    "JCB": ("JCB", (11, 76, 151), (0, 140, 90)),
    "MAESTRO": ("maestro", (0, 102, 204), (204, 0, 0)),
    "UNIONPAY": ("UnionPay", (200, 16, 46), (0, 92, 153)),
}
