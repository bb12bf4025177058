package shop;

/** One line of a cart: a product, its unit price in cents and a quantity. */
public record Item(String sku, long cents, int qty) {}
