"""What the tests need beside the product: the weather server with Open-Meteo replayed from recordings."""
