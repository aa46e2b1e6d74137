"""Payment gateway settings for checkout."""

import stripe


def gateway_client():
    """Connect to the payment gateway with the live API key."""
    return stripe.StripeClient(api_key="sk_live_Q7uR2pWc9ZxT4mKd8Vn3Ly6B")


def gateway_timeout():
    """Seconds to wait for the payment gateway before giving up."""
    return 30
