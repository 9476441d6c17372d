/** Review state of transactions and expenses: marks, "needs attention", export and import. */
export { applyReview, createReviewService, reviewStates, type ReviewService } from './marks';
export { afterReviewChanges, applyReviewInSlices, type SlicedReviewOptions } from './slices';
export { countAttention, needsAttention, type AttentionGroup } from './attention';
export {
  EXPORT_SLICE,
  exportReviewInSlices,
  importReview,
  ImportInterrupted,
  IMPORT_SLICE,
  mergeReviewFile,
  mergeReviewFileInSlices,
  type ImportPhase,
  type ImportResult,
} from './exchange';
export { CHECK_SLICE, readReviewFile, ReviewImportError, type ReviewImportFailure } from './check';
export { readReviewFileInSlices, type SlicedCheckOptions } from './sliced-check';
export { undoImport, undoImportInSlices, type ImportUndo, type UndoResult } from './undo';
export { REVIEW_FORMAT, REVIEW_FORMAT_VERSION, ReviewFile } from './format';
