export { renderConsentText } from "./render.js";
