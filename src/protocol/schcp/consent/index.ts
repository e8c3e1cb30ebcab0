export { placeWords, renderConsentText } from "./render.js";
export { slotWords } from "./slot-words.js";
