print("imagepipe")
