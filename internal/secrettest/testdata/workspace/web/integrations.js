// Third-party integrations of the shop front end.
export const integrations = {
  sendgrid: "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",
  twilio: "SK5282376418ba293adb3b93b450e7a6d6",
  registry: "npm_6nzCyIGN1dm18pDTwuGsH3JnqGV4o0oTnppO",
  models: "hf_nEPtXcRg50BXjar7VLSMPvzMLtepfRZch9",
  shop: "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",
};

/** Sends a mail through Mailgun with key-4e3799e5f822a78b5bd6a43989c78e01. */
export function mail(to) {
  return send(to, "key-4e3799e5f822a78b5bd6a43989c78e01");
}

function send(to, credential) {
  return { to, credential };
}
