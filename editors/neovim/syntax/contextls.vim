" Syntax of the context-ls scratch buffers (results view, pack preview,
" pins list, index stats).
if exists('b:current_syntax')
  finish
endif
syntax match contextlsTitle /^context-ls: .*/
syntax match contextlsTitle /^#.*/
syntax match contextlsHelp /^<CR> opens.*/
syntax match contextlsHelp /^keys: .*/
syntax match contextlsNote /^note: .*/
syntax match contextlsGroup /^\S.* (\d\+)$/
syntax match contextlsLocation /^  \S\+:\d\+/
syntax match contextlsLocation /\%(^ \+\%(pinned\|always\)\? \+\)\@<=\S\+:\d\+-\d\+/
syntax match contextlsMark /^  \%(pinned\|always\)\>/
syntax match contextlsNone /^  \%(none\|failed\)\>.*/
highlight default link contextlsTitle Title
highlight default link contextlsHelp Comment
highlight default link contextlsNote Comment
highlight default link contextlsGroup Statement
highlight default link contextlsLocation Directory
highlight default link contextlsMark Special
highlight default link contextlsNone Comment
let b:current_syntax = 'contextls'
