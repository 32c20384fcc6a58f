namespace Broken

theorem good_one (x : ℕ) : x + 0 = x := rfl

theorem cut_binder {n : ℕ} (x : Fin n :
    x = x

theorem no_statement (x : ℕ) := rfl

def := 3

theorem good_two : True := trivial

end Wrong

/- never closed
theorem hidden : True := trivial
