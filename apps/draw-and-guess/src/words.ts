/**
 * The game's built-in word list: a few categories of simple English nouns, each easy to draw in a
 * minute. A category's list is also what `game.start_round` hands the agent as `candidates`, so an
 * agent without vision can still play.
 */

export const CATEGORIES = ["animals", "food", "objects", "nature"] as const;
export type Category = (typeof CATEGORIES)[number];

export const WORDS: Readonly<Record<Category, readonly string[]>> = {
  animals: ["cat", "dog", "fish", "bird", "horse", "snake", "rabbit", "elephant", "giraffe", "turtle", "spider", "butterfly", "lion", "duck", "frog"],
  food: ["apple", "banana", "pizza", "cake", "carrot", "bread", "cheese", "egg", "cookie", "cherry", "lemon", "pear", "strawberry", "donut", "watermelon"],
  objects: ["chair", "lamp", "key", "clock", "cup", "book", "phone", "umbrella", "bed", "door", "guitar", "camera", "hat", "shoe", "spoon"],
  nature: ["sun", "moon", "star", "tree", "flower", "cloud", "rainbow", "mountain", "river", "leaf", "volcano", "island", "wave", "cactus", "mushroom"],
};

export function isCategory(value: unknown): value is Category {
  return typeof value === "string" && (CATEGORIES as readonly string[]).includes(value);
}
