// The template rules are pure and shared with the renderer (the download dialog's example name).
export * from '../../src-shared/file-template';
