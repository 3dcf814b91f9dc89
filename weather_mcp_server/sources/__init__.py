"""Where the figures come from: the Open-Meteo client, the labelled simulator, and the provider choosing between them."""
