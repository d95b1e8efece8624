# `kladder article` (src/article/): the article of every ladder at a small size, as a page
# and as Markdown, checked against its run (tests/check_article.py); a saved run's article,
# and an older one's; bad input; the page in a real browser. Skipped (exit 77) where kladder
# was built without libgit2, which makes the diffs.
set(KL_ARTICLE ${CMAKE_CURRENT_SOURCE_DIR}/check_article.sh $<TARGET_FILE:kladder-cli>
               ${CMAKE_SOURCE_DIR})
set(kl_article_tests "")
foreach(ladder IN ITEMS "gemm;--size;17" "copy;--n;100003" "rowdot;--rows;37;--d;11"
                        "gemv;--m;45;--n;29" "blur;--width;37;--height;11")
  list(GET ladder 0 name)
  add_test(NAME article_${name} COMMAND ${KL_ARTICLE} ladder ${ladder})
  list(APPEND kl_article_tests article_${name})
endforeach()
foreach(mode saved bad browser)
  add_test(NAME article_${mode} COMMAND ${KL_ARTICLE} ${mode})
  list(APPEND kl_article_tests article_${mode})
endforeach()
set_tests_properties(${kl_article_tests} PROPERTIES LABELS "pocl;article" SKIP_RETURN_CODE 77)
