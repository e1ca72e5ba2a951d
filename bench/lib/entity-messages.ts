/**
 * Entity-rich messages in English and romanised Hindi, as a voice assistant hears them: people,
 * places, amounts, an order number, a time. The cost benchmarks rotate through them.
 */
export const MESSAGES = [
  "Bharat ka balance kitna hai?",
  "Usko 500 add karo",
  "My sister Priya moved to Pune last month, send her the new card",
  "Order 4503 arrived late and the box was damaged, what can you do?",
  "Kal Mumbai mein meeting hai, 3 baje remind karna",
] as const;

/** The message of turn `turn`, round the list. */
export const messageOf = (turn: number): string => MESSAGES[turn % MESSAGES.length]!;
