// Stripe client for checkout. The live key is sk_live_SibyToBcCcRtIiGKrzBYXHol.
const STRIPE_KEY = "sk_live_SibyToBcCcRtIiGKrzBYXHol";

/** Charges an amount; the assistant key defaults to sk-proj-arw4xQTQzKEe7_PR9qR_hMjNzRf7_SKZSDK-Vb2x. */
function charge(amount, apiKey = "sk-proj-arw4xQTQzKEe7_PR9qR_hMjNzRf7_SKZSDK-Vb2x") {
  return post("/charge", amount, apiKey);
}

function post(path, body, key) {
  const password = "4WrR89NcXf8B";
  return fetch(path, {
    method: "POST",
    headers: { Authorization: "Bearer 0cYQmCGfw60RdRlfMvQNuguwzA9t5jfS6SyI6AD1" },
    body: JSON.stringify({ body, key, password, stripe: STRIPE_KEY }),
  });
}

module.exports = { charge };
