"""Names and options of the models a config asks for."""


def model_name(order, prune=(), discount_fallback=False):
    """A folder name that tells models with different options apart: `o3`, `o4-prune0.0.1-fallback`."""
    name = f"o{order}"
    if prune:
        name += "-prune" + ".".join(str(p) for p in prune)
    if discount_fallback:
        name += "-fallback"
    return name


def models_from_config(orders, prune, discount_fallback):
    """{name: options} for every order, sharing the configured lmplz options."""
    return {
        model_name(order, prune, discount_fallback): {
            "order": order,
            "prune": list(prune),
            "discount_fallback": bool(discount_fallback),
        }
        for order in sorted(set(orders))
    }
